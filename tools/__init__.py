"""finrag.tools."""
