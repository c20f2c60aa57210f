"""Long documents: the windows a text too long for one prompt is read in, and the merge of their objects by the
target's schema (`pipeline/windowed.py` drives both)."""
