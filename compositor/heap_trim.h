/* Heap pages given back when clients leave (heap_trim.c). */
#ifndef SYNCWAY_HEAP_TRIM_H
#define SYNCWAY_HEAP_TRIM_H

struct sw_server;

void heap_trim_init(struct sw_server *server);
void heap_trim_finish(struct sw_server *server);

#endif
