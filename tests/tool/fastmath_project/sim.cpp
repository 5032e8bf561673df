int game_sim_placeholder() { return 0; }
