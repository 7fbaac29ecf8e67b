"""finrag.eval."""
