/* Producer selection of a data source entry; see producer_match.h. */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceconfig/producer_match.h"

/*
 * Upstream matches producer names with a full-string ECMAScript regex; a
 * POSIX extended regex anchored at both ends covers the patterns people
 * write (literals, ., *, +, ?, [], (), |).
 */
int
traceconfig_regex_match(const char *pattern, const char *name)
{
	regex_t	 re;
	char	*anchored;
	size_t	 len;
	int	 rc;

	if (pattern == NULL || name == NULL)
		return 0;
	len = strlen(pattern) + 5;
	if ((anchored = malloc(len)) == NULL)
		return 0;
	snprintf(anchored, len, "^(%s)$", pattern);
	rc = regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	if (rc != 0)
		return 0;
	rc = regexec(&re, name, 0, NULL, 0);
	regfree(&re);
	return rc == 0;
}

int
traceconfig_producer_match(const Perfetto__Protos__TraceConfig__DataSource *ds,
    const char *name)
{
	size_t	i;

	if (ds->n_producer_name_filter == 0 &&
	    ds->n_producer_name_regex_filter == 0)
		return 1;
	if (name == NULL)
		name = "";
	for (i = 0; i < ds->n_producer_name_filter; i++)
		if (ds->producer_name_filter[i] != NULL &&
		    strcmp(ds->producer_name_filter[i], name) == 0)
			return 1;
	for (i = 0; i < ds->n_producer_name_regex_filter; i++)
		if (traceconfig_regex_match(ds->producer_name_regex_filter[i],
		    name))
			return 1;
	return 0;
}
