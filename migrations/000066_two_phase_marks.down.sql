DROP FUNCTION mark_two_phase_commit();
DROP TABLE two_phase_marks;
