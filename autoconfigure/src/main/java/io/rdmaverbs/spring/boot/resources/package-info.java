/**
 * The resources declared under {@code rdma.verbs.devices}: their structural checks, one bean
 * definition per declaration, and their creation from their parent beans, checked against the limits
 * of the opened device.
 */
@NullMarked
package io.rdmaverbs.spring.boot.resources;

import org.jspecify.annotations.NullMarked;
