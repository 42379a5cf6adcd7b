package io.rdmaverbs.spring.boot.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;

import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Makes a bean (an {@link RdmaEndpoint} class) only when the listener it names is declared under
 * {@code rdma.verbs.connections.listeners}: for one application that runs as either side, listener or peer,
 * by profile. Without it, an endpoint bound to a listener that is not declared fails the startup, so that a
 * misspelt name never leaves an endpoint that takes nothing.
 *
 * <pre>{@code
 * @Component
 * @RdmaEndpoint("echo")
 * @ConditionalOnRdmaListener("echo")
 * class EchoEndpoint { ... }
 * }</pre>
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(ConditionalOnRdmaListener.OnListenerDeclared.class)
public @interface ConditionalOnRdmaListener {

    /** The listener's key under {@code rdma.verbs.connections.listeners}. */
    String value();

    /** Matches when the listener is declared. */
    final class OnListenerDeclared implements Condition {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnRdmaListener.class.getName());
            String listener = attributes == null ? null : (String) attributes.get("value");
            return listener != null && Binder.get(context.getEnvironment())
                    .bind(ConnectionDeclarations.LISTENERS, Bindable.mapOf(String.class, Object.class))
                    .map(listeners -> listeners.containsKey(listener)).orElse(false);
        }
    }
}
