DROP FUNCTION card_lock_for_decision_skip(text, text, text, text, text, text);
