/*
 * job.c - the traces of one job as one trace: `report FILE...` and
 * `report DIR` (the ranks of a distributed run, one file each) load them in
 * parallel (trace_load_many) and merge them (trace/merge.h); one plain file
 * is analysis_load's.
 */
#include <sys/stat.h>

#include "analyze/analysis.h"
#include "trace/merge.h"
#include "trace/trace_db.h"
#include "util/error.h"

int analysis_is_job(const char *const *paths, size_t n)
{
	struct stat st;
	return n > 1 || (n == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode));
}

int analysis_load_job(struct trace *t, const char *const *paths, size_t n, int jobs, char *err)
{
	if (!analysis_is_job(paths, n))
		return analysis_load(t, paths[0], err);
	struct trace_set set;
	if (trace_load_many(&set, paths, n, jobs, err) < 0) {
		trace_init(t); /* the caller releases it */
		return -1;
	}
	int rc = trace_merge_set(t, &set, err);
	trace_set_release(&set);
	if (rc == 0)
		analysis_sort(t);
	return rc;
}
