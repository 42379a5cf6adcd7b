/**
 * The converters between payload objects and session messages ({@link RdmaMessageConverter}): bytes and
 * text by default, JSON with Jackson 3 when it is on the class path, agreed on by the
 * {@code content-type} header.
 */
@NullMarked
package io.rdmaverbs.spring.boot.messaging.converter;

import org.jspecify.annotations.NullMarked;
