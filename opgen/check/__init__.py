"""`opgen check`: the tiers that check a spec, its recipe and a generated tree."""
