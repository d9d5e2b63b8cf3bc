"""The transformers judge: loading, tokenising, batching and packing rows, the forward pass,
and the bundled small model (with the script that trained it)."""
