/* security-context-v1, and the display's global filter: what sandboxed
 * clients do not see (security_context.c). */
#ifndef SYNCWAY_SECURITY_CONTEXT_H
#define SYNCWAY_SECURITY_CONTEXT_H

struct sw_server;

/* Sets the display's one global filter: no other module may set another. */
void security_context_init(struct sw_server *server);
void security_context_finish(struct sw_server *server);

#endif
