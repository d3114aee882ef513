/*
 * libefa.so.1 for rocelab0 (issue 25): perftest links AWS EFA's direct verbs (efadv_*) beside
 * mlx5's and calls them only on an EFA device. rocelab0 is not one: each says so.
 */
#include <errno.h>
#include <stddef.h>

#include "core.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT void *efadv_create_driver_qp(void) { rocelab_unsupported("efadv_create_driver_qp"); return NULL; }
EXPORT void *efadv_create_qp_ex(void) { rocelab_unsupported("efadv_create_qp_ex"); return NULL; }
EXPORT int efadv_query_device(void) { return rocelab_unsupported("efadv_query_device"); }
EXPORT int efadv_query_ah(void) { return rocelab_unsupported("efadv_query_ah"); }
EXPORT void *efadv_create_cq(void) { rocelab_unsupported("efadv_create_cq"); return NULL; }
EXPORT void *efadv_cq_from_ibv_cq_ex(void) { rocelab_unsupported("efadv_cq_from_ibv_cq_ex"); return NULL; }
