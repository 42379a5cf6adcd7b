package io.rdmaverbs.spring.boot.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Binds a bean's {@link RdmaMessageMapping} methods to the listener declared under
 * {@code rdma.verbs.connections.listeners.<listener>}: the messages and requests of every connection it
 * accepts go to the method whose route their {@value RdmaMessageHeaders#ROUTE} header names, as Spring
 * RSocket's {@code @MessageMapping} methods of a {@code @Controller} take the frames of their route.
 *
 * <pre>{@code
 * @Component
 * @RdmaEndpoint("orders")
 * class OrderEndpoint {
 *
 *     @RdmaMessageMapping("place")
 *     Receipt place(Order order) { ... }          // a request's reply, converted (JSON)
 * }
 * }</pre>
 *
 * Not named {@code @RdmaListener}: that is the class of a declared listener's bean, which an application
 * injects. Several classes may bind to one listener; a route is taken by one method only. The class must
 * be a bean ({@code @Component}, or a {@code @Bean}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RdmaEndpoint {

    /** The declared listener whose messages it takes: its key under {@code rdma.verbs.connections.listeners}. */
    @AliasFor("listener")
    String value() default "";

    /** {@link #value()}. */
    @AliasFor("value")
    String listener() default "";
}
