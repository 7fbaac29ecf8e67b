"""finrag.graphs."""
