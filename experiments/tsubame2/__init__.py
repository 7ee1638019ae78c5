"""TSUBAME 2.0 experiments: Ueno & Suzumura (seed 004)."""
