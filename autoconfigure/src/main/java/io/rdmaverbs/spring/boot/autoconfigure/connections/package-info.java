/**
 * Auto-configuration of the listeners and peers declared under {@code rdma.verbs.connections}
 * ({@code io.rdmaverbs.spring.boot.connections}).
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.connections;

import org.jspecify.annotations.NullMarked;
