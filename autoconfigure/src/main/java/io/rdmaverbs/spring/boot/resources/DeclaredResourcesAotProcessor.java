package io.rdmaverbs.spring.boot.resources;

import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.generate.GenerationContext;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.aot.BeanRegistrationCodeFragments;
import org.springframework.beans.factory.aot.BeanRegistrationCodeFragmentsDecorator;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.CodeBlock;

/**
 * Keeps "no destroy method" on the declared resources' bean definitions when they are written as code.
 * The generated definitions leave the destroy method unset, and Spring then infers {@code close()} for
 * an {@code AutoCloseable}: on destroy it would close again, strictly, every resource the teardown
 * deliberately left open, and log each refusal. The teardown alone releases them.
 */
final class DeclaredResourcesAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        if (!DeclaredResourceFactory.BEAN_NAME.equals(registeredBean.getMergedBeanDefinition().getFactoryBeanName())) {
            return null;
        }
        return BeanRegistrationAotContribution.withCustomCodeFragments(NoDestroyMethod::new);
    }

    private static final class NoDestroyMethod extends BeanRegistrationCodeFragmentsDecorator {

        NoDestroyMethod(BeanRegistrationCodeFragments delegate) {
            super(delegate);
        }

        @Override
        public CodeBlock generateSetBeanDefinitionPropertiesCode(GenerationContext generationContext,
                BeanRegistrationCode beanRegistrationCode, RootBeanDefinition beanDefinition,
                Predicate<String> attributeFilter) {
            return CodeBlock.builder()
                    .add(super.generateSetBeanDefinitionPropertiesCode(generationContext, beanRegistrationCode,
                            beanDefinition, attributeFilter))
                    .addStatement("$L.setDestroyMethodName($S)", BEAN_DEFINITION_VARIABLE, "")
                    .build();
        }
    }
}
