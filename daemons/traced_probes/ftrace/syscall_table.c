/*
 * Syscall name -> number (see syscall_table.h). The names come from
 * syscall_names.h; a name this architecture lacks compiles to nothing.
 */
#include <asm/unistd.h>
#include <stddef.h>
#include <string.h>

#include "syscall_table.h"

static const struct {
	const char	*name;
	long		 nr;
} table[] = {
#include "syscall_names.h"
	{ NULL, 0 }
};

long
syscall_number(const char *name)
{
	if (strncmp(name, "sys_", 4) == 0)
		name += 4;
	for (size_t i = 0; table[i].name != NULL; i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].nr;
	return -1;
}
