"""The acceptance corpus of complete PyTorch programs (issue 12), run under both libraries."""
