"""Players that ask a language model through litellm: the prompt, the reply parsing and the
Xent benchmark's own prompt, and the LLM story sampler of the game space."""
