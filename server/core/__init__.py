"""The shared ground every layer may use: settings, coded errors, names, JSON text, library shims,
the catalogues and the addresses a phone can reach."""
