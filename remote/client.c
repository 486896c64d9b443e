/* client.c: the S3 client handle, its configuration and connection pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "remote/internal.h"

static int curl_ready;

/* curl_global_init is not thread-safe; ferry calls it from main's thread. */
static ferry_err
global_init(void)
{
	if (curl_ready)
		return FERRY_OK;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return ferry_fail(FERRY_ENET, "cannot initialise libcurl");
	curl_ready = 1;
	return FERRY_OK;
}

static ferry_err
setup_multi(
    struct remote *r, unsigned maxconn, int adaptive, struct remote *share)
{
	ferry_err e;

	if (maxconn == 0)
		maxconn = REMOTE_JOBS_START;
	if (share) {
		r->loop = share->loop;
		r->loop->refs++;
	} else {
		if ((r->loop = calloc(1, sizeof(*r->loop))) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		r->loop->refs = 1;
		r->loop->epfd = r->loop->wakefd = -1;
		concur_init(&r->loop->concur,
		    adaptive ? REMOTE_JOBS_START : maxconn, maxconn, !adaptive);
		r->loop->budget = 100;
		r->loop->answered_ns = r->loop->checked_ns = now_mono_ns();
		r->loop->rng = (uint64_t)now_mono_ns() ^ (uint64_t)time(NULL)
		                                             << 20;
		if ((r->loop->multi = curl_multi_init()) == NULL)
			return ferry_fail(
			    FERRY_ENOMEM, "cannot create a curl multi");
		/* connections to each host, so both sides of a mirror
		 * get theirs */
		curl_multi_setopt(r->loop->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
		    (long)r->loop->concur.limit);
		curl_multi_setopt(r->loop->multi, CURLMOPT_MAXCONNECTS,
		    (long)r->loop->concur.limit * 2 + 4);
		if ((e = loop_events_init(r->loop)) != FERRY_OK)
			return e;
	}
	r->pool_cap = maxconn + 8;
	r->easy_pool = calloc(r->pool_cap, sizeof(*r->easy_pool));
	if (r->easy_pool == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return FERRY_OK;
}

static int
same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/*
 * The customer's key, for an https endpoint only: it goes in the clear
 * with every request.
 */
static ferry_err
take_ssec(struct remote *r, const struct remote_opts *o)
{
	if (o->sse_c_key == NULL)
		return FERRY_OK;
	if (!r->ep.https)
		return ferry_fail(FERRY_EUSAGE,
		    "--sse-c-key: the key goes with every request, so only "
		    "over https; the endpoint is %s",
		    r->cfg.endpoint);
	return ssec_load(o->sse_c_key, &r->ssec);
}

ferry_err
remote_new(const struct remote_opts *o, struct remote **out)
{
	return remote_new_sharing(o, NULL, out);
}

ferry_err
remote_new_sharing(
    const struct remote_opts *o, struct remote *share, struct remote **out)
{
	struct config_flags f = {0};
	struct remote *r;
	ferry_err e;

	*out = NULL;
	if ((e = global_init()) != FERRY_OK)
		return e;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	f.endpoint_url = o->endpoint_url;
	f.region = o->region;
	f.profile = o->profile;
	f.path_style = o->path_style;
	f.no_creds = o->no_sign;
	if ((e = config_resolve(&f, NULL, &r->cfg)) != FERRY_OK)
		goto out;
	/* the two sides of a mirror often share a profile: said once */
	if (r->cfg.warning != NULL &&
	    (share == NULL || !same_str(share->cfg.warning, r->cfg.warning)))
		log_warn("%s", r->cfg.warning);
	if ((e = endpoint_parse(r->cfg.endpoint, &r->ep)) != FERRY_OK ||
	    (e = creds_open(&r->creds, &r->cfg)) != FERRY_OK ||
	    (e = sigv4_algs_init(&r->algs)) != FERRY_OK)
		goto out;
	r->retries = o->retries ? o->retries : REMOTE_DEFAULT_RETRIES;
	r->read_timeout =
	    o->read_timeout ? o->read_timeout : REMOTE_DEFAULT_READ_TIMEOUT;
	r->no_verify_ssl = o->no_verify_ssl;
	r->list_ranges = o->max_connections ? o->max_connections : 1;
	if (o->adaptive && r->list_ranges > REMOTE_LIST_RANGES_START)
		r->list_ranges = REMOTE_LIST_RANGES_START;
	r->no_sign = o->no_sign;
	r->request_payer = o->request_payer;
	if ((e = take_ssec(r, o)) != FERRY_OK ||
	    (e = setup_multi(r, o->max_connections, o->adaptive, share)) !=
	        FERRY_OK ||
	    (share == NULL && (e = bw_open(r->loop, o->bwlimit)) != FERRY_OK))
		goto out;
	/* the loop's owner says how long a silent server is waited for */
	if (share == NULL)
		r->loop->stall_ns =
		    o->stall_timeout < 0
		        ? 0
		        : (int64_t)(o->stall_timeout
		                        ? o->stall_timeout
		                        : REMOTE_DEFAULT_STALL_TIMEOUT) *
		              1000000000LL;
	*out = r;
	return FERRY_OK;
out:
	remote_free(r);
	return e;
}

void
remote_free(struct remote *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->npool; i++)
		curl_easy_cleanup(r->easy_pool[i]);
	free(r->easy_pool);
	if (r->loop && r->loop->failed == r)
		r->loop->failed = NULL;
	if (r->loop && --r->loop->refs == 0) {
		stall_flush(r->loop);
		bw_close(r->loop);
		if (r->loop->multi)
			curl_multi_cleanup(r->loop->multi);
		loop_events_clear(r->loop);
		free(r->loop);
	}
	creds_close(&r->creds);
	ssec_clear(&r->ssec);
	sigv4_algs_clear(&r->algs);
	for (i = 0; i < r->nregions; i++) {
		free(r->regions[i].bucket);
		free(r->regions[i].host);
	}
	free(r->regions);
	config_clear(&r->cfg);
	endpoint_clear(&r->ep);
	free(r);
}

const struct remote_stats *
remote_stats(const struct remote *r)
{
	return &r->stats;
}

const char *
remote_endpoint(const struct remote *r)
{
	return r->cfg.endpoint;
}

/*
 * One service: the same endpoint, or AWS's hosts of two regions (the same
 * account reaches its buckets in every region, and copies between them).
 */
static int
same_service(const struct remote *a, const struct remote *b)
{
	struct buf ha, hb;
	int same;

	if (same_str(a->cfg.endpoint, b->cfg.endpoint))
		return 1;
	if (a->ep.https != b->ep.https || a->ep.port != b->ep.port)
		return 0;
	buf_init(&ha, 1024);
	buf_init(&hb, 1024);
	same = region_host(a->ep.host, "-", &ha) == FERRY_OK &&
	       region_host(b->ep.host, "-", &hb) == FERRY_OK &&
	       strcmp(ha.data, hb.data) == 0 && strcmp(ha.data, a->ep.host);
	buf_free(&ha);
	buf_free(&hb);
	return same;
}

int
remote_same_account(const struct remote *a, const struct remote *b)
{
	/* The keys may be refreshed: compared under their locks. */
	if (a->no_sign || b->no_sign)
		return a->no_sign && b->no_sign && same_service(a, b);
	return same_service(a, b) &&
	       creds_same((struct creds *)&a->creds, (struct creds *)&b->creds);
}

/* The index of bucket's entry in r->regions, or r->nregions. */
static size_t
region_index(const struct remote *r, const char *bucket)
{
	size_t i;

	for (i = 0; i < r->nregions; i++)
		if (strcmp(r->regions[i].bucket, bucket) == 0)
			break;
	return i;
}

const struct bucket_region *
bucket_region_find(const struct remote *r, const char *bucket)
{
	size_t i = region_index(r, bucket);

	return i < r->nregions ? &r->regions[i] : NULL;
}

ferry_err
bucket_region_set(struct remote *r, const char *bucket, const char *region)
{
	size_t i = region_index(r, bucket);
	struct bucket_region *br;
	struct buf host;
	ferry_err e;

	if (i < r->nregions && strcmp(r->regions[i].region, region) == 0)
		return FERRY_OK;
	buf_init(&host, 1024);
	if ((e = region_host(r->ep.host, region, &host)) != FERRY_OK)
		return e;
	if (i == r->nregions) {
		br = realloc(r->regions, (i + 1) * sizeof(*br));
		if (br == NULL || (br[i].bucket = strdup(bucket)) == NULL) {
			if (br != NULL)
				r->regions = br;
			buf_free(&host);
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		}
		r->regions = br;
		br[i].host = NULL;
		r->nregions++;
	}
	br = &r->regions[i];
	free(br->host);
	br->host = host.data;
	snprintf(br->region, sizeof(br->region), "%s", region);
	log_info("s3://%s is in region %s: its requests go to %s", bucket,
	    region, br->host);
	return FERRY_OK;
}

unsigned
remote_window(const struct remote *r)
{
	return r->loop->concur.limit;
}

unsigned
remote_concur_cap(uint64_t memory)
{
	struct rlimit rl;
	uint64_t nofile = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		nofile = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX
		                                      : (uint64_t)rl.rlim_cur;
	return concur_cap(memory, nofile);
}

unsigned
remote_inflight(const struct remote *r)
{
	return r->loop->inflight;
}

int
remote_is_url(const char *s)
{
	return is_s3_url(s);
}

ferry_err
remote_loc_parse(const char *s, struct remote_loc *out)
{
	struct s3_location l = {0};
	ferry_err e;

	out->bucket = out->prefix = NULL;
	if ((e = s3_location_parse(s, &l)) != FERRY_OK)
		return e;
	out->bucket = l.bucket;
	out->prefix = l.prefix;
	return FERRY_OK;
}

void
remote_loc_clear(struct remote_loc *l)
{
	if (l == NULL)
		return;
	free(l->bucket);
	free(l->prefix);
	l->bucket = l->prefix = NULL;
}
