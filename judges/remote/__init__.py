"""The remote judge: a client for a judge served over HTTP (native or OpenAI-compatible),
the server that exposes any judge, their wire format, and least-busy replicas."""
