/* threads.c: two threads, each with its own EGL context on a pbuffer,
 * calling GL at the same time, so that apitrace records interleaved
 * enter/leave events of two threads. Built and traced by gen.sh. */
#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <pthread.h>
#include <stdio.h>

static EGLDisplay dpy;
static EGLConfig cfg;
static pthread_barrier_t barrier;

static void *worker(void *arg) {
	int id = (int)(long)arg;
	EGLint pb[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
	EGLint ca[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
	EGLSurface surf = eglCreatePbufferSurface(dpy, cfg, pb);
	EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ca);
	eglMakeCurrent(dpy, surf, surf, ctx);
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < 200; i++) {
		GLint v[4];
		glClearColor(id, i / 200.0f, 0, 1);
		glClear(GL_COLOR_BUFFER_BIT);
		glGetIntegerv(GL_VIEWPORT, v);
		glFinish();
		if (i % 50 == 49)
			eglSwapBuffers(dpy, surf);
	}
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroyContext(dpy, ctx);
	eglDestroySurface(dpy, surf);
	return NULL;
}

int main(void) {
	dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
	if (!eglInitialize(dpy, NULL, NULL)) {
		fprintf(stderr, "eglInitialize failed\n");
		return 1;
	}
	EGLint attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE};
	EGLint n;
	eglChooseConfig(dpy, attrs, &cfg, 1, &n);
	eglBindAPI(EGL_OPENGL_ES_API);
	pthread_barrier_init(&barrier, NULL, 2);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	eglTerminate(dpy);
	return 0;
}
