"""Read models built from the log: the judges' floor, the score sheet, and the event's public
page and hall clock with their cache."""
