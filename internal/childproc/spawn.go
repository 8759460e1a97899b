package childproc

import (
	"os"
	"os/exec"
)

// spawn starts the process with its output appended to LogPath.
func (p *Process) spawn(binary string, args []string) error {
	f, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return &StartError{Name: p.Name, Phase: PhaseSetup, Dir: p.Dir, Err: err}
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir = p.Dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		f.Close()
		return &StartError{Name: p.Name, Phase: PhaseSpawn, Dir: p.Dir, Err: err}
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	return nil
}

// kill ends a process that never became ready.
func (p *Process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}
