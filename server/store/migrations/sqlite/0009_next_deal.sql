-- Schema version 9 (from 8): a room keeps its next deal under gofish-deal/1
-- (its secret seed and the seats' contributions, as the room layer spells
-- them), so that the commitment it announced and the contributions it
-- acknowledged outlive a restart. NULL while a game is in play, and in a
-- room written before this version (it draws a seed when it is restored).

ALTER TABLE rooms ADD COLUMN next_deal TEXT;
