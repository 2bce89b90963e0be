/* The floor of `buzz-load cli`: a plain C program that does nothing, so a
   run of it costs only the fork, the exec, libc's loading and the exit that
   every `buzz` command pays too (docs/performance.md, CLI start-up). */
int main(void) { return 0; }
