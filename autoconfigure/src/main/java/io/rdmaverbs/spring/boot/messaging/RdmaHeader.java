package io.rdmaverbs.spring.boot.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An {@link RdmaMessageMapping} parameter bound to one message header, converted to the parameter's type
 * (a {@code String}, a number, a {@code UUID}...) by Spring's conversion service.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RdmaHeader {

    /** The header's key. */
    String value();

    /** Whether a message without it is refused (a request gets an error reply); otherwise the parameter is null. */
    boolean required() default true;
}
