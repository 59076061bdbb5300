"""Text helpers shared by the stages (no stage imports another; each may import these)."""
