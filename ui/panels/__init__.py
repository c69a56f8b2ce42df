"""One wizard panel per task; each calls its engine exactly as the CLI does."""
