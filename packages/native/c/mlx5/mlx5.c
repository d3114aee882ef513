/*
 * libmlx5.so.1 for rocelab0 (issue 25): perftest links mlx5's direct verbs (mlx5dv_*) and calls
 * them only on an mlx5 device. rocelab0 is not one: each says so (EOPNOTSUPP and a log line) and
 * mlx5dv_is_supported says no, so programs keep to the standard verbs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "core.h"

#define EXPORT __attribute__((visibility("default")))

/* Each returns what its mlx5 signature uses for failure: NULL (pointers) or a non-zero int. */
#define NULL_STUB(name) \
	EXPORT void *name(void) { rocelab_unsupported(#name); return NULL; }
#define INT_STUB(name) \
	EXPORT int name(void) { return rocelab_unsupported(#name); }

EXPORT bool mlx5dv_is_supported(void *device) { return false; }

NULL_STUB(mlx5dv_create_qp)
NULL_STUB(mlx5dv_open_device)
NULL_STUB(mlx5dv_create_mkey)
NULL_STUB(mlx5dv_qp_ex_from_ibv_qp_ex)
NULL_STUB(mlx5dv_dek_create)
NULL_STUB(mlx5dv_create_cq)
NULL_STUB(mlx5dv_create_flow_matcher)
INT_STUB(mlx5dv_query_device)
INT_STUB(mlx5dv_init_obj)
INT_STUB(mlx5dv_destroy_mkey)
INT_STUB(mlx5dv_devx_general_cmd)
INT_STUB(mlx5dv_crypto_login)
INT_STUB(mlx5dv_dek_destroy)
INT_STUB(mlx5dv_set_context_attr)
