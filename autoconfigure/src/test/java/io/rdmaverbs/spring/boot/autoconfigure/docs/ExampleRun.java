package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import io.rdmaverbs.spring.boot.autoconfigure.docs.MarkdownExamples.Block;
import io.rdmaverbs.spring.boot.autoconfigure.docs.MarkdownExamples.Program;
import io.rdmaverbs.spring.boot.autoconfigure.docs.MarkdownExamples.Unit;
import io.rdmaverbs.verbs.Verbs;

/**
 * Compiles one program of a page against the test class path and, unless it is compile-only, runs
 * it and compares what each unit printed with the output the page quotes for it.
 *
 * <p>The program is the units' hidden and visible lines, in page order, as the body of
 * {@code DocSnippets.main} (so a frame in a quoted stack reads {@code DocSnippets.main}); top-level
 * {@code static} lines and type declarations (a class made {@code static}) become members of the class. Each top-level statement that declares nothing runs
 * in its own {@code try}: an exception it throws is printed as {@code SimpleName: message}, as the
 * pages show them (its message alone for a {@code messages only} program), and the program goes on with the next statement, so one example can show a refused
 * close and go on. A declaration must succeed. A unit quoting no output must print nothing.
 *
 * <p>Every problem names the page and line it is about.
 */
final class ExampleRun {

    /**
     * The packages every example sees. When a type moves, the examples keep compiling once the new
     * package is listed here (or imported in an example's hidden lines).
     */
    static final List<String> IMPORTS = List.of("io.rdmaverbs.verbs.*", "io.rdmaverbs.verbs.attr.*",
            "io.rdmaverbs.verbs.provider.*", "io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider",
            "io.rdmaverbs.verbs.provider.simulated.*", "io.rdmaverbs.verbs.connection.*", "java.net.*",
            "java.nio.file.*", "java.time.*", "java.util.*", "java.util.concurrent.*",
            "io.rdmaverbs.spring.boot.messaging.*", "java.lang.foreign.MemorySegment", "java.util.zip.CRC32",
            "org.springframework.boot.WebApplicationType", "org.springframework.boot.Banner",
            "org.springframework.boot.builder.SpringApplicationBuilder",
            "org.springframework.boot.autoconfigure.EnableAutoConfiguration",
            "org.springframework.context.annotation.Import");

    private static final String CLASS = "DocSnippets";
    private static final String UNIT_START = "\u0000unit ";
    private static final Pattern DECLARATION = Pattern.compile(
            "^(final\\s+)?(var|int|long|short|byte|char|boolean|float|double|[A-Z]\\w*(\\.[A-Z]\\w*)*(<.*?>)?)(\\[])*"
                    + "\\s+[a-z]\\w*\\s*(=|;|,).*", Pattern.DOTALL);

    /** Parts of a message that differ from run to run: when, which temporary file, which source line. */
    private static final List<Replacement> VARIABLE = List.of(
            new Replacement(Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"), "<instant>"),
            new Replacement(Pattern.compile("\\S*/xrcd\\d+\\.(key|none)"), "<temporary file>.$1"),
            new Replacement(Pattern.compile("(\\w+)\\.java:\\d+\\)"), "$1.java:<line>)"));

    private record Replacement(Pattern pattern, String with) {
    }

    private final Program program;
    private final Path work;
    private final List<String> problems = new ArrayList<>();
    private final List<String> source = new ArrayList<>();
    /** For each line of {@link #source}, the page line it came from, or 0. */
    private final List<Integer> pageLines = new ArrayList<>();

    private ExampleRun(Program program, Path work) {
        this.program = program;
        this.work = work;
    }

    /**
     * The problems of the programs {@code names} of {@code page}, in that order, a page whose every ```java
     * block is marked: its unmarked blocks and each program's own problems.
     */
    static List<String> checkPrograms(Path page, Path work, String... names) throws IOException {
        MarkdownExamples examples = MarkdownExamples.of(page);
        List<String> problems = new ArrayList<>();
        examples.unmarkedJava().forEach(b -> problems.add(page.getFileName() + ":" + b.line()
                + ": a ```java block without an <!-- example: ... --> marker"));
        List<String> found = examples.programs().stream().map(Program::name).toList();
        if (!found.equals(List.of(names))) {
            problems.add(page.getFileName() + ": programs " + found + ", not " + List.of(names));
            return problems;
        }
        for (Program program : examples.programs()) {
            Path dir = work.resolve(program.name());
            Files.createDirectories(dir);
            problems.addAll(check(program, dir));
        }
        return problems;
    }

    /** The problems of {@code program}, each naming its page line; empty when it compiles and prints what the page shows. */
    static List<String> check(Program program, Path work) throws IOException {
        ExampleRun run = new ExampleRun(program, work);
        run.generate();
        if (run.compile() && !program.compileOnly()) {
            run.compare(run.execute());
        }
        return run.problems;
    }

    private void generate() {
        List<String> members = new ArrayList<>();
        List<Integer> memberLines = new ArrayList<>();
        List<String> body = new ArrayList<>();
        List<Integer> bodyLines = new ArrayList<>();
        for (int u = 0; u < program.units().size(); u++) {
            Unit unit = program.units().get(u);
            body.add("System.out.println(\"\\u0000unit " + u + "\");");
            bodyLines.add(unit.line());
            statements(unit.hidden(), unit.hiddenLine(), members, memberLines, body, bodyLines);
            if (unit.code() != null) {
                statements(unit.code().lines(), unit.code().line(), members, memberLines, body, bodyLines);
            }
        }
        IMPORTS.forEach(i -> emit("import " + i + ";", 0));
        emit("public final class " + CLASS + " {", 0);
        for (int i = 0; i < members.size(); i++) {
            emit(members.get(i), memberLines.get(i));
        }
        emit("public static void main(String[] args) throws Exception {", 0);
        for (int i = 0; i < body.size(); i++) {
            emit(body.get(i), bodyLines.get(i));
        }
        emit("}", 0);
        emit("private static void report(Throwable e) {", 0);
        emit(program.messagesOnly() ? "System.out.println(e.getMessage());"
                : "System.out.println(e.getClass().getSimpleName() + \": \" + e.getMessage());", 0);
        emit("}", 0);
        emit("}", 0);
    }

    private void emit(String line, int pageLine) {
        source.add(line);
        pageLines.add(pageLine);
    }

    /** Splits {@code lines} into top-level statements; wraps those that declare nothing; hoists static members. */
    private static void statements(List<String> lines, int firstLine, List<String> members, List<Integer> memberLines,
            List<String> body, List<Integer> bodyLines) {
        for (int[] range : Statements.split(lines)) {
            List<String> text = lines.subList(range[0], range[1] + 1);
            String code = Statements.withoutComments(String.join("\n", text)).strip();
            if (code.startsWith("static ")) {
                for (int i = range[0]; i <= range[1]; i++) {
                    members.add(lines.get(i));
                    memberLines.add(firstLine + i);
                }
                continue;
            }
            if (TypeDeclarations.isDeclaration(code)) {
                List<String> member = TypeDeclarations.asMember(lines.subList(range[0], range[1] + 1));
                for (int i = 0; i < member.size(); i++) {
                    members.add(member.get(i));
                    memberLines.add(firstLine + range[0] + i);
                }
                continue;
            }
            boolean wrap = !DECLARATION.matcher(code).matches();
            if (wrap) {
                body.add("try {");
                bodyLines.add(firstLine + range[0]);
            }
            for (int i = range[0]; i <= range[1]; i++) {
                body.add(lines.get(i));
                bodyLines.add(firstLine + i);
            }
            if (wrap) {
                body.add("} catch (Exception e) { report(e); }");
                bodyLines.add(firstLine + range[1]);
            }
        }
    }

    private boolean compile() throws IOException {
        Path src = work.resolve(CLASS + ".java");
        Files.write(src, source, StandardCharsets.UTF_8);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("-d", work.toString(), "-proc:none", "-classpath", classPath());
            boolean ok = compiler.getTask(null, files, diagnostics, options, null, files.getJavaFileObjects(src)).call();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    int line = (int) d.getLineNumber();
                    int pageLine = line >= 1 && line <= pageLines.size() ? pageLines.get(line - 1) : 0;
                    problems.add(where(pageLine) + "does not compile: " + d.getMessage(Locale.ROOT)
                            + (line >= 1 && line <= source.size() ? " [" + source.get(line - 1).strip() + "]" : ""));
                }
            }
            return ok;
        }
    }

    /** The test class path, plus where verbs-core's classes are (surefire may hide them in a manifest-only jar). */
    private static String classPath() {
        Set<String> entries = new LinkedHashSet<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        try {
            entries.add(Path.of(Verbs.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        }
        catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Runs the program and returns what each unit printed. */
    private List<List<String>> execute() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream original = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] { work.toUri().toURL() },
                ExampleRun.class.getClassLoader())) {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            loader.loadClass(CLASS).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
        }
        catch (InvocationTargetException e) {
            problems.add(where(program.line()) + "program '" + program.name() + "' stopped with " + e.getCause());
        }
        catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        finally {
            System.setOut(original);
        }
        List<List<String>> printed = new ArrayList<>();
        for (String line : bytes.toString(StandardCharsets.UTF_8).split("\n", -1)) {
            if (line.startsWith(UNIT_START)) {
                printed.add(new ArrayList<>());
            }
            else if (!printed.isEmpty() && !(line.isEmpty())) {
                printed.getLast().add(line);
            }
        }
        return printed;
    }

    private void compare(List<List<String>> printed) {
        for (int u = 0; u < program.units().size(); u++) {
            Unit unit = program.units().get(u);
            List<String> actual = u < printed.size() ? printed.get(u) : List.of();
            Block output = unit.output();
            List<String> expected = output == null ? List.of() : quoted(output.lines());
            for (int i = 0; i < Math.max(actual.size(), expected.size()); i++) {
                String want = i < expected.size() ? normalized(expected.get(i)) : null;
                String got = i < actual.size() ? normalized(actual.get(i)) : null;
                if (want == null || !want.equals(got)) {
                    int line = output == null ? unit.line() : output.line() + Math.min(i, output.lines().size() - 1);
                    problems.add(where(line) + (want == null ? "the page quotes no output, but the example printed:\n    "
                            + got : "the page quotes:\n    " + expected.get(i) + "\n  but the example printed:\n    "
                            + (got == null ? "(nothing more)" : actual.get(i))));
                    break;
                }
            }
        }
    }

    /** The quoted lines, with {@code Type: (the same)} standing for the line before it. */
    private static List<String> quoted(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            out.add(line.endsWith(": (the same)") && !out.isEmpty() ? out.getLast() : line);
        }
        return out;
    }

    private static String normalized(String line) {
        String s = line.strip();
        for (Replacement r : VARIABLE) {
            s = r.pattern().matcher(s).replaceAll(r.with());
        }
        return s;
    }

    private String where(int line) {
        return program.page() + ":" + line + ": ";
    }
}
