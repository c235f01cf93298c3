"""What runs beside the store: the table service (commands in, published views out), the fan-out
hub and the round timer."""
