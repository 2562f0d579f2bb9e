/* The robustness suite's subtests at the compositor's fd limit (against
 * the compositor of $SYNCWAY_ROBUSTNESS_LIMITED_DISPLAY). */
#ifndef SYNCWAY_CT_FD_LIMIT_H
#define SYNCWAY_CT_FD_LIMIT_H

void fd_limit_tests(void);

#endif
