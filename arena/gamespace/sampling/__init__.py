"""Sampling: the meta-samplers that propose games related to a parent (grammar-aware
mutations, a language model) and the filter pipeline that keeps the good proposals."""
