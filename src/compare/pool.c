/*
 * The import pool (pool.h): the files of a comparison are independent,
 * so they are read two at a time.
 */
#include <assert.h>
#include <pthread.h>
#include <string.h>

#include "compare/pool.h"

static void import_job(struct pd_import_job *j)
{
	j->rc = pd_import(&j->p, j->path, j->o, &j->err);
}

struct pool {
	struct pd_import_job *jobs;
	size_t n;
};

static void *pool_odd(void *arg)
{
	struct pool *p = arg;
	size_t i;

	for (i = 1; i < p->n; i += 2)
		import_job(&p->jobs[i]);
	return NULL;
}

int pd_import_pool(const char *const *paths, size_t n,
		   const struct pd_import_opts *io, struct pd_import_job *jobs,
		   struct pd_err *err)
{
	struct pool pool = { jobs, n };
	pthread_t th;
	int threaded;
	size_t i;

	for (i = 0; i < n; i++) {
		jobs[i].path = paths[i];
		jobs[i].o = io;
		jobs[i].rc = 0;
		memset(&jobs[i].err, 0, sizeof(jobs[i].err));
		pd_profile_init(&jobs[i].p);
	}
	assert(n == 0 || (paths && jobs && io));
	threaded = n > 1 && !pthread_create(&th, NULL, pool_odd, &pool);
	for (i = 0; i < n; i += threaded ? 2 : 1)
		import_job(&jobs[i]);
	if (threaded)
		pthread_join(th, NULL);
	for (i = 0; i < n; i++) {
		/* an importer returns 0 or a (negative) error code */
		assert(jobs[i].rc <= 0);
		if (jobs[i].rc < 0)
			return pd_err_set(err, jobs[i].rc, "%s",
					  jobs[i].err.msg);
	}
	return 0;
}
