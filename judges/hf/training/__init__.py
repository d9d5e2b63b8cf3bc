"""Training of the bundled judge: a procedural story corpus and a small GPT-2 trainer."""
