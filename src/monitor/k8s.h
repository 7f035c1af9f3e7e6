/*
 * k8s.h - the Kubernetes names of a process's pod (namespace, pod,
 * container) from what the kubelet writes on its node, with no API client
 * and no kubelet socket (docs/serve.md says why):
 *   /var/log/pods/NAMESPACE_POD_UID/CONTAINER/  a pod's log directories
 *       (the kubelet's BuildPodLogsDirectory): the namespace and pod name
 *       of a pod UID, and its container when the pod has one directory;
 *   /var/log/containers/POD_NAMESPACE_CONTAINER-ID.log  the kubelet's
 *       legacy log links (logSymlink): the container of a container id.
 * Only directory entries are read: no file there is opened and no link
 * followed, and a name that is not a valid Kubernetes name is not used
 * (so a label value is never longer than the API allows).
 */
#ifndef GPUSCOPE_MONITOR_K8S_H
#define GPUSCOPE_MONITOR_K8S_H

#include "monitor/log.h"

/* entries read from one directory at most: a node runs a few hundred pods
 * at most (the kubelet's default maxPods is 110) */
#define K8S_MAX_ENTRIES 65536
/* container directories of one pod considered (init and ephemeral ones
 * included) */
#define K8S_MAX_CONTAINERS 64

/* 1 when s is a DNS-1123 label (a namespace, a container name): [a-z0-9-],
 * alphanumeric at both ends, K8S_LABEL_MAX bytes at most. */
int k8s_label_ok(const char *s);
/* 1 when s is a DNS-1123 subdomain (a pod name): such labels joined by
 * '.', K8S_SUBDOMAIN_MAX bytes at most. */
int k8s_subdomain_ok(const char *s);

/*
 * The names of the pod with this UID and of its container with this id
 * (64 hex digits; either may be "") from the kubelet's directories under
 * root (NULL: /). out is cleared first and what cannot be found stays "":
 * the pod's names need its log directory or its container's log link, the
 * container's name the pod's only container directory or the link.
 * Returns how many of the three names were found.
 */
int k8s_names_find(struct k8s_names *out, const char *root, const char *pod_uid,
		   const char *container_id);

#endif
