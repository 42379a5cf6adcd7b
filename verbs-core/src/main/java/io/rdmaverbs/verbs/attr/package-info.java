/**
 * Values exchanged with the verbs: device and port attributes, QP types, states and transitions,
 * access flags, work-completion codes and async event types. Numeric values are those of
 * {@code <infiniband/verbs.h>}.
 */
@NullMarked
package io.rdmaverbs.verbs.attr;

import org.jspecify.annotations.NullMarked;
