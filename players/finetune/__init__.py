"""Fine-tuning a local player on its own games (REINFORCE), for the game space's transfer
measure; here because it trains the hf player (the core may not import a wing)."""
