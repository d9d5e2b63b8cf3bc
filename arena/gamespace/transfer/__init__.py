"""Transfer: fine-tune a player on a game and measure what it gains there and elsewhere
(Def. 35 and 37): the oracle contract, the real oracle, a table oracle, and the arithmetic."""
