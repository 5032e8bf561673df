// An explicit registration function that registers nothing: with it, lockstep_add_tool links
// the SIMS plainly (no whole-archive), showing that a self-registering sim is then dropped.
void lockstep_test_no_registration() {}
