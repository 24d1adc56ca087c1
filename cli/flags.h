/*
 * faro command line flags: the spelling and combination rules of upstream
 * Perfetto's `perfetto` command, checked before anything is opened.
 */
#ifndef FARO_CLI_FLAGS_H
#define FARO_CLI_FLAGS_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes, documented in faro(1). */
#define FARO_EXIT_OK		0
#define FARO_EXIT_ERROR		1
#define FARO_EXIT_NOT_DETACHED	2	/* --is_detached: no; --attach failed */

/* What faro does once the flags are read. */
enum faro_mode {
	FARO_MODE_TRACE,	/* start a session (config or light mode) */
	FARO_MODE_ATTACH,	/* --attach=KEY [--stop] */
	FARO_MODE_IS_DETACHED,	/* --is_detached=KEY */
	FARO_MODE_QUERY,	/* --query, --query-raw */
	FARO_MODE_CLONE,	/* --clone, --clone-by-name */
};

struct faro_attr {
	char	*key;
	char	*value;
};

/* Light mode: a config from a few flags instead of -c. */
struct faro_light {
	const char	 *time;		/* -t, "10s" by default */
	const char	 *buffer;	/* -b, "32mb" by default */
	const char	 *size;		/* -s, none by default */
	char		**apps;		/* -a, atrace apps */
	size_t		  napps;
	char		**categories;	/* positional: group/name or category */
	size_t		  ncategories;
};

struct faro_opts {
	enum faro_mode	 mode;
	const char	*config_path;	/* -c, "-" is stdin */
	int		 txt;		/* --txt */
	int		 txt_lossy;	/* --txt-lossy */
	const char	*out_path;	/* -o, "-" is stdout */
	int		 no_clobber;
	int		 background;	/* -d or -D */
	int		 background_wait; /* -D */
	int		 notify_fd;	/* --notify-fd, -1 if none */
	const char	*detach_key;	/* --detach */
	const char	*attach_key;	/* --attach or --is_detached */
	int		 stop;		/* --stop */
	int		 query_long;	/* --long */
	int		 query_raw;	/* --query-raw */
	uint64_t	 clone_tsid;	/* --clone */
	const char	*clone_name;	/* --clone-by-name */
	int		 clone_for_bugreport;
	struct faro_attr *attrs;	/* --add-attribute */
	size_t		 nattrs;
	int		 has_light;	/* any light-mode flag given */
	struct faro_light light;
};

/*
 * Parses argv into opts. Returns 0 to go on, or -1 when faro must exit
 * now with *exit_code (help and version print and give 0; a usage error
 * is explained on stderr and gives 1).
 */
int	flags_parse(int argc, char **argv, struct faro_opts *opts,
	    int *exit_code);
void	flags_free(struct faro_opts *);
void	flags_usage(const char *argv0, int to_stdout);

#endif
