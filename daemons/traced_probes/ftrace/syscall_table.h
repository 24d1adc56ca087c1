/*
 * Syscall names to numbers for this architecture, for
 * FtraceConfig.syscall_events (a filter on raw_syscalls' id field).
 */
#ifndef FARO_SYSCALL_TABLE_H
#define FARO_SYSCALL_TABLE_H

/* The number of a syscall ("read" or "sys_read"), or -1 if unknown. */
long	syscall_number(const char *name);

#endif
