/**
 * Auto-configuration of the {@code verbs} actuator endpoint ({@code io.rdmaverbs.spring.boot.endpoint}) and its
 * {@code management.endpoint.verbs.*} properties.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
