"""Search-term generators under test: offline baselines (no LLM) and the Gemini generator."""
