package io.rdmaverbs.spring.boot.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** An {@link RdmaMessageMapping} parameter of type {@code Map<String, String>} bound to every message header. */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RdmaHeaders {
}
