/* Heap pages given back when clients leave (heap_trim.c). */
#ifndef SYNCWAY_HEAP_TRIM_H
#define SYNCWAY_HEAP_TRIM_H

struct sw_server;

/* First thing in main(): may execute syncway again, once, with glibc's
 * per-thread cache of freed chunks cut to one a size (heap_trim.c says
 * why). */
void heap_trim_exec_with_small_tcache(char **argv);

void heap_trim_init(struct sw_server *server);
void heap_trim_finish(struct sw_server *server);

#endif
