package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;

import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when at least one listener or peer is declared under {@code rdma.verbs.connections}: without
 * one, no connection manager event channel is created.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
@Documented
@Conditional(ConditionalOnConnectionsDeclared.OnConnectionsDeclared.class)
@interface ConditionalOnConnectionsDeclared {

    final class OnConnectionsDeclared extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            int listeners = count(binder, ConnectionDeclarations.LISTENERS);
            int peers = count(binder, ConnectionDeclarations.PEERS);
            return listeners + peers > 0
                    ? ConditionOutcome.match(listeners + " listener(s) and " + peers + " peer(s) declared")
                    : ConditionOutcome.noMatch("no listener or peer declared under " + ConnectionDeclarations.PREFIX);
        }

        private static int count(Binder binder, String path) {
            return binder.bind(path, Bindable.mapOf(String.class, Object.class)).map(Map::size).orElse(0);
        }
    }
}
