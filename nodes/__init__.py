"""finrag.nodes."""
