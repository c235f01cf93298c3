"""Read models built from the log: the judges' floor and the score sheet."""
