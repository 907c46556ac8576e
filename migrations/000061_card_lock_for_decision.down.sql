DROP FUNCTION card_lock_for_decision(text, text, text, text, text, text);
