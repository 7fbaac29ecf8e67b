"""finrag.state."""
