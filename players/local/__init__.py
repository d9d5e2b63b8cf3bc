"""Players that run here: local transformers models (hf), search over the judge, random words
and scripted moves."""
