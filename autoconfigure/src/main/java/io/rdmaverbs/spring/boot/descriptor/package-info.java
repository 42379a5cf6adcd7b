/**
 * JSON-friendly views of resources, stuck references, leases and close plans, shared by the health
 * indicator and the endpoint.
 */
@NullMarked
package io.rdmaverbs.spring.boot.descriptor;

import org.jspecify.annotations.NullMarked;
