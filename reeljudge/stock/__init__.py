"""Stock-footage search APIs (Pexels, Pixabay): how many video clips a query returns, cached."""
