// axios's values, imported in this one module: a bundle keeps one `import` of axios, not one per
// module that uses it.
export { Axios, AxiosError, CanceledError, default as axios } from 'axios';
